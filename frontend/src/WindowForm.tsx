// "Run with time window": a manual run whose tasks get exactly the typed window, as Hopsworks' job.run(start_time=...,
// end_time=...). The plugin checks the window (one validator: the tasks' own); the browser asks Airflow for the run.
import { useState, type FormEvent } from "react";
import { Link } from "react-router-dom";

import { Refused, getWindowRuns, runTabPath, runWithWindow } from "./api";
import { Mono, Pager, Table, useLive } from "./ui";

export const WINDOW_RUNS = 10;

const FIELDS = [
  ["start_time", "Start", "2026-01-01T09:00:00Z"],
  ["end_time", "End", "2026-01-01T10:00:00Z"],
] as const;

type Status = { ok: boolean; text: string } | null;

const WindowRuns = ({ dagId, stamp, made }: { readonly dagId: string; readonly stamp: string; readonly made: string | null }) => {
  const [offset, setOffset] = useState(0);
  const key = `${dagId}/${offset}/${stamp}/${made ?? ""}`;
  const live = useLive(() => getWindowRuns(dagId, offset, WINDOW_RUNS), key, false);
  const page = live.data;
  if (page === null) return null;
  if (page.total === 0) {
    return (
      <p className="note" id="window-runs-none">
        No run with a time window yet.
      </p>
    );
  }
  return (
    <>
      <Pager id="window-runs-pages" offset={offset} size={WINDOW_RUNS} total={page.total} move={setOffset} unit="runs" />
      <Table
        id="window-runs"
        head={[["run"], ["triggered", "run after"], ["state"], ["HOPS_START_TIME", "window start"], ["HOPS_END_TIME", "window end"], ["HOPS_LOGICAL_DATE"]]}
      >
        {page.runs.map((run) => (
          <tr key={run.run_id} data-run-id={run.run_id} className={run.run_id === made ? "new" : undefined}>
            <td className="mono">
              <Link to={runTabPath(dagId, run.run_id)}>{run.run_id}</Link>
            </td>
            <Mono value={run.run_after} />
            <td>{run.state}</td>
            {run.HOPS_START_TIME === undefined ? (
              <td colSpan={3}>none: {run.error ?? "no window"}</td>
            ) : (
              <>
                <Mono value={run.HOPS_START_TIME} />
                <Mono value={run.HOPS_END_TIME} />
                <Mono value={run.HOPS_LOGICAL_DATE} />
              </>
            )}
          </tr>
        ))}
      </Table>
    </>
  );
};

// What was typed, per DAG: kept when the host mounts the tab afresh (its lazy loader, then the loaded component).
const typed = new Map<string, Record<string, string>>();

export const WindowForm = ({ dagId, stamp }: { readonly dagId: string; readonly stamp: string }) => {
  const [values, setTyped] = useState<Record<string, string>>(() => typed.get(dagId) ?? { start_time: "", end_time: "" });
  const setValues = (next: Record<string, string>) => {
    typed.set(dagId, next);
    setTyped(next);
  };
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [status, setStatus] = useState<Status>(null);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // An empty field is left out, so that the window's check names it as missing.
    const window = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ""));
    setBusy(true);
    setErrors({});
    setStatus(null);
    runWithWindow(dagId, window).then(
      (runId) => {
        setBusy(false);
        setMade(runId);
        setStatus({ ok: true, text: `Run ${runId} created with your window; it is listed below.` });
      },
      (failure: unknown) => {
        setBusy(false);
        if (failure instanceof Refused) {
          setErrors(Object.fromEntries(failure.errors.map((e) => [e.field, e.message])));
          const what = { 401: "you are not logged in", 403: "you may not trigger this DAG" }[failure.status as 401 | 403];
          setStatus({ ok: false, text: what === undefined ? failure.message : `${what}: ${failure.message}` });
        } else {
          setStatus({ ok: false, text: `The request did not reach Airflow: ${String(failure)}` });
        }
      },
    );
  };

  return (
    <section>
      <h2 id="run-with-window">Run with time window</h2>
      <p className="note">
        A manual run whose tasks get HOPS_START_TIME = start, HOPS_END_TIME = end and HOPS_LOGICAL_DATE = start, as
        Hopsworks' job.run(start_time=..., end_time=...). Times as YYYY-MM-DDTHH:MM:SS, UTC unless they carry an offset.
        Your browser asks Airflow's REST API for the run with your own login, so it needs the permission to trigger
        this DAG.
      </p>
      <form id="window-form" onSubmit={submit}>
        {FIELDS.map(([name, label, example]) => (
          <div key={name} style={{ display: "contents" }}>
            <label htmlFor={`hops-${name}`}>{label} (UTC)</label>
            <input
              id={`hops-${name}`}
              name={name}
              className="mono"
              autoComplete="off"
              spellCheck={false}
              placeholder={example}
              value={values[name]}
              aria-invalid={errors[name] === undefined ? undefined : true}
              aria-describedby={`hops-${name}-error`}
              onChange={(event) => setValues({ ...values, [name]: event.target.value })}
            />
            <span className="bad" id={`hops-${name}-error`} role="status">
              {errors[name] ?? ""}
            </span>
          </div>
        ))}
        <span />
        <button type="submit" className="primary" id="window-form-submit" disabled={busy}>
          Run with this window
        </button>
        <span />
      </form>
      {status === null ? null : (
        <p id="window-form-status" role="alert" className={`verdict ${status.ok ? "ok" : "bad"}`}>
          {status.text}
        </p>
      )}
      <h3>Runs with a time window</h3>
      <WindowRuns dagId={dagId} stamp={stamp} made={made} />
    </section>
  );
};
