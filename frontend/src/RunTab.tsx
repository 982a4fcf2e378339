// One run's Hopsworks tab: the HOPS_* values its tasks get, and what the run carried that gave them.
import { Link } from "react-router-dom";
import type { ReactNode } from "react";

import { getRun, segment } from "./api";
import { Tab, useLive } from "./ui";

const row = (name: string, value: ReactNode, id?: string, mono = false) => (
  <tr key={id ?? name}>
    <th>{name}</th>
    <td id={id} className={mono ? "mono" : undefined}>
      {value}
    </td>
  </tr>
);

export const RunTab = ({ dagId, runId }: { readonly dagId: string; readonly runId: string }) => {
  const live = useLive(() => getRun(dagId, runId), `${dagId}/${runId}`);
  const run = live.data;
  if (run === null) {
    return (
      <Tab id="hops-run">
        <p className="note" id="loading">{live.error ?? "Loading the run's window..."}</p>
      </Tab>
    );
  }
  const rows = [
    row("run", run.run_id, undefined, true),
    row("type", run.run_type),
    row("state", run.state, "state"),
    row(
      "Airflow data interval",
      run.data_interval_start === null ? "none" : `[${run.data_interval_start}, ${run.data_interval_end})`,
      "data-interval",
      true,
    ),
  ];
  const env = Object.entries(run.env);
  if (env.length > 0) {
    rows.push(...env.map(([key, value]) => row(key, value, key, true)));
  } else {
    rows.push(row("HOPS_*", run.error === null ? `none: ${run.source_words ?? ""}` : `none: ${run.error}`, "no-window"));
  }
  if (run.source !== null) rows.push(row("source", run.source_words ?? run.source, "source"));
  for (const legacy of run.legacy) {
    rows.push(
      row(
        "legacy arguments",
        <>
          <code className="legacy" data-mode={legacy.mode}>
            {legacy.arguments}
          </code>{" "}
          <span className="note">
            appended by legacy_args="{legacy.mode}" of {legacy.tasks.join(", ")}
          </span>
        </>,
        `legacy-${legacy.mode}`,
      ),
    );
  }
  return (
    <Tab id="hops-run">
      {live.error === null ? null : <p className="note bad">Not refreshed: {live.error}</p>}
      <h2>Hopsworks window of this run</h2>
      <div className="scroll">
        <table id="run">
          <tbody>{rows}</tbody>
        </table>
      </div>
      <p>
        <Link id="back" to={`/dags/${segment(dagId)}/plugin/hopsworks`}>
          Every window of {dagId}
        </Link>
      </p>
    </Tab>
  );
};
