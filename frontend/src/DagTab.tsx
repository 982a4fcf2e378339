// The DAG's Hopsworks tab: the schedule in words, the next windows, the form, the coverage page by page.
import { useEffect, useState } from "react";
import { Link } from "react-router-dom";

import { getDag, getSpans, runTabPath, type DagData, type Fire, type Span } from "./api";
import { Mono, Pager, Table, Tab, useLive, type Head } from "./ui";
import { WindowForm } from "./WindowForm";

export const SPAN_ROWS = 20;
/** How soon the tab asks again while the DAG's runs are being read. */
const READING_MS = 1_000;

export const RunLinks = ({ dagId, runIds }: { readonly dagId: string; readonly runIds: readonly string[] }) => (
  <>
    {runIds.map((runId, index) => (
      <span key={runId}>
        {index > 0 ? ", " : null}
        <Link to={runTabPath(dagId, runId)}>{runId}</Link>
      </span>
    ))}
  </>
);

const seconds = (value: number): string => {
  const units: [number, string][] = [
    [86400, "day"],
    [3600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  const [size, name] = units.find(([unit]) => Math.abs(value) % unit === 0 && Math.abs(value) >= unit) ?? [1, "second"];
  const count = Math.abs(value) / size;
  return `${count.toLocaleString("en")} ${name}${count === 1 ? "" : "s"}`;
};

/** The heads of the HOPS_* columns; with an offset the window does not start where Airflow's interval starts. */
const windowHeads = (offset: number): Head[] => [
  ["HOPS_START_TIME", offset === 0 ? "window start = interval start" : `window start: ${seconds(offset)} before the interval`],
  ["HOPS_END_TIME", "window end"],
  ["HOPS_LOGICAL_DATE", "the run's logical date"],
];

const interval = (start: string, end: string): string => `[${start}, ${end})`;

const Upcoming = ({ data, offset }: { readonly data: DagData; readonly offset: number }) =>
  data.upcoming.length === 0 ? (
    <p className="note">No further fires.</p>
  ) : (
    <Table id="upcoming" head={[["fire", "the run starts then"], ["Airflow data interval"], ...windowHeads(offset)]}>
      {data.upcoming.map((w) => (
        <tr key={w.fire}>
          <Mono value={w.fire} />
          <Mono value={interval(w.data_interval_start, w.fire)} />
          <Mono value={w.HOPS_START_TIME} />
          <Mono value={w.HOPS_END_TIME} />
          <Mono value={w.HOPS_LOGICAL_DATE} />
        </tr>
      ))}
    </Table>
  );

const Strip = ({ fires }: { readonly fires: readonly Fire[] }) => (
  <div className="strip" id="strip" aria-label="the fires of this page, oldest to newest, coloured by status">
    {fires.map((f) => (
      <span key={f.fire} className={`f-${f.tone}`} title={`${f.fire}: ${f.status}`} />
    ))}
  </div>
);

const Fires = ({ dagId, fires, offset }: { readonly dagId: string; readonly fires: readonly Fire[]; readonly offset: number }) => (
  <Table
    id="fires"
    head={[["fire"], ["status"], ["Airflow data interval"], ...windowHeads(offset), ["runs"]]}
  >
    {[...fires].reverse().map((f) => (
      <tr key={f.fire} data-fire={f.fire} data-status={f.status}>
        <Mono value={f.fire} />
        <td className={`t-${f.tone}`}>
          {f.status}
          {f.decision !== "created" && f.covered ? " (window covered by another run)" : ""}
        </td>
        <Mono value={interval(f.data_interval_start, f.data_interval_end)} />
        <Mono value={f.HOPS_START_TIME} />
        <Mono value={f.HOPS_END_TIME} />
        <Mono value={f.HOPS_LOGICAL_DATE} />
        <td className="mono">
          <RunLinks dagId={dagId} runIds={f.run_ids} />
        </td>
      </tr>
    ))}
  </Table>
);

const SpanRows = ({ dagId, spans, runs }: { readonly dagId: string; readonly spans: readonly Span[]; readonly runs: boolean }) => (
  <>
    {spans.map((s) => (
      <tr key={`${s.start}/${s.end}`}>
        <Mono value={s.start} />
        <Mono value={s.end} />
        <td>{s.reasons.join(", ")}</td>
        {runs ? (
          <td className="mono">
            <RunLinks dagId={dagId} runIds={s.run_ids} />
          </td>
        ) : null}
      </tr>
    ))}
  </>
);

const spanHead = (runs: boolean): Head[] => [
  ["from", "window time"],
  ["to", "window time, exclusive"],
  ["why"],
  ...(runs ? ([["runs"]] as Head[]) : []),
];

/** Gaps or drops over the whole history, SPAN_ROWS at a time, the newest first. */
const Spans = ({ dagId, kind, title, stamp }: { readonly dagId: string; readonly kind: string; readonly title: string; readonly stamp: string }) => {
  const [offset, setOffset] = useState(0);
  const key = `${dagId}/${kind}/${offset}/${stamp}`;
  const live = useLive(() => getSpans(dagId, kind, offset, SPAN_ROWS), key, false);
  const page = live.data;
  if (page === null || page.total === 0) return null;
  const runs = kind !== "dropped";
  return (
    <section>
      <h3>{title}</h3>
      <Pager id={`${kind}-pages`} offset={offset} size={SPAN_ROWS} total={page.total} move={setOffset} unit="ranges" />
      <Table id={kind} head={spanHead(runs)}>
        <SpanRows dagId={dagId} spans={page.items} runs={runs} />
      </Table>
    </section>
  );
};

const Older = ({ data }: { readonly data: DagData }) =>
  data.coverage.history.length === 0 ? null : (
    <section>
      <h3>Older history</h3>
      <Table id="history" head={[["from fire"], ["to fire"], ["windows"], ["what happened"]]}>
        {data.coverage.history.map((row) => {
          const statuses = Object.entries(row.by_status).sort((a, b) => b[1] - a[1]);
          const words =
            statuses.length === 1
              ? `${row.count.toLocaleString("en")} window(s) ${statuses[0][0]}`
              : `${row.count.toLocaleString("en")} window(s): ${statuses.map(([s, n]) => `${n.toLocaleString("en")} ${s}`).join(", ")}`;
          return (
            <tr key={row.first} data-status={statuses.length === 1 ? statuses[0][0] : "mixed"}>
              <Mono value={row.first} />
              <Mono value={row.last} />
              <td>{row.count.toLocaleString("en")}</td>
              <td>{words}</td>
            </tr>
          );
        })}
      </Table>
    </section>
  );

export const DagTab = ({ dagId }: { readonly dagId: string }) => {
  const [page, setPage] = useState(0);
  const live = useLive(() => getDag(dagId, page), `${dagId}/${page}`);
  const answer = live.data;
  const reading = answer !== null && "reading" in answer ? answer.reading : null;
  useEffect(() => {
    if (reading === null) return undefined;
    const timer = window.setTimeout(live.reload, READING_MS);
    return () => window.clearTimeout(timer);
  }, [reading, live.reload]);
  if (answer === null || "reading" in answer) {
    const waiting = reading === null ? "Loading the Hopsworks schedule..." : `Reading the runs of ${dagId}: ${reading.runs_read.toLocaleString("en")} so far.`;
    return (
      <Tab id="hops-dag">
        <p className="note" id="loading">{live.error ?? waiting}</p>
      </Tab>
    );
  }
  const data = answer;
  const cov = data.coverage;
  const offset = Number(data.settings.start_time_offset_seconds ?? 0);
  const size = cov.page.size;
  return (
    <Tab id="hops-dag">
      {live.error === null ? null : <p className="note bad">Not refreshed: {live.error}</p>}
      <h2>Schedule</h2>
      <ul id="schedule">
        {data.words.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <h2>Next windows</h2>
      <Upcoming data={data} offset={offset} />
      <WindowForm dagId={dagId} stamp={cov.now} />
      <h2>Coverage up to {cov.now}</h2>
      <p>
        <span className={`verdict ${cov.ok ? "ok" : "bad"}`} id="verdict">
          {cov.verdict}
        </span>
      </p>
      <Spans dagId={dagId} kind="gaps" title="Gaps" stamp={cov.now} />
      <Spans dagId={dagId} kind="dropped" title="Dropped by design" stamp={cov.now} />
      {cov.duplicates.length === 0 ? null : (
        <section>
          <h3>Windows processed more than once (this page)</h3>
          <Table id="duplicates" head={spanHead(true)}>
            <SpanRows dagId={dagId} spans={cov.duplicates} runs />
          </Table>
        </section>
      )}
      {cov.overlaps.length === 0 ? null : (
        <section>
          <h3>Overlaps (this page)</h3>
          <Table id="overlaps" head={spanHead(true)}>
            <SpanRows dagId={dagId} spans={cov.overlaps} runs />
          </Table>
        </section>
      )}
      <h3>{cov.page.pages === 1 ? "Every fire" : "Fires of this page"}</h3>
      <Strip fires={cov.fires} />
      <Pager id="pages" offset={page * size} size={size} total={cov.page.fires_total} move={(o) => setPage(Math.floor(o / size))} unit="fires" />
      <Fires dagId={dagId} fires={cov.fires} offset={offset} />
      <Older data={data} />
    </Tab>
  );
};
