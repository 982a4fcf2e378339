// What the tab reads and writes: the plugin's JSON (hops/api/...) and Airflow's REST API (api/v2/...), both on this
// Airflow, with the browser's own login (the UI's session cookie, sent with every same-origin request).

export type Env = { HOPS_START_TIME: string; HOPS_END_TIME: string; HOPS_LOGICAL_DATE: string };

export type Upcoming = Env & { fire: string; data_interval_start: string };

export type Fire = Env & {
  fire: string;
  data_interval_start: string;
  data_interval_end: string;
  decision: string;
  status: string;
  tone: string;
  state: string | null;
  run_ids: string[];
  covered: boolean;
  pending: boolean;
};

export type Span = { start: string; end: string; reasons: string[]; run_ids: string[] };

export type Older = { first: string; last: string; count: number; by_status: Record<string, number> };

export type Page = {
  number: number;
  pages: number;
  size: number;
  fires_total: number;
};

export type Coverage = {
  now: string;
  ok: boolean;
  complete: boolean;
  verdict: string;
  fires: Fire[];
  gaps: Span[];
  duplicates: Span[];
  overlaps: Span[];
  gaps_total: number;
  dropped_total: number;
  page: Page;
  history: Older[];
};

export type DagData = {
  dag_id: string;
  settings: Record<string, unknown> & { start_time_offset_seconds?: number | null };
  words: string[];
  upcoming: Upcoming[];
  coverage: Coverage;
};

/** The answer while the DAG's runs are read (a long history, once): how many so far; the tab asks again. */
export type Reading = { dag_id: string; reading: { runs_read: number } };

export type SpanPage = { kind: string; total: number; offset: number; items: Span[] };

export type WindowRun = Partial<Env> & {
  run_id: string;
  run_after: string;
  state: string;
  error: string | null;
};

export type WindowRunPage = { total: number; offset: number; runs: WindowRun[] };

export type Legacy = { mode: string; arguments: string; tasks: string[] };

export type RunData = {
  dag_id: string;
  run_id: string;
  run_type: string;
  state: string;
  source: string | null;
  source_words: string | null;
  error: string | null;
  data_interval_start: string | null;
  data_interval_end: string | null;
  env: Partial<Env>;
  legacy: Legacy[];
  note: string | null;
};

/** A field the plugin refused, as it names it: the field, the value and what would be valid. */
export type FieldError = { field: string; message: string };

export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
  }
}

/** A run or DAG id as a path segment, spelled as Airflow's own links spell it: only what a segment cannot hold is
 * escaped (":" and "+" of a scheduled run's id stay), so that Airflow's router marks its tab of the page as shown. */
export const segment = (value: string): string =>
  encodeURIComponent(value).replace(/%(3A|2B|40|2C|3D|24|26|3B)/gi, (escaped) => decodeURIComponent(escaped));

/** The run's Hopsworks tab in Airflow's router (its own base path applies). */
export const runTabPath = (dagId: string, runId: string): string =>
  `/dags/${segment(dagId)}/runs/${segment(runId)}/plugin/hopsworks-run`;

/** An address on this Airflow: the UI's <base href> is Airflow's root, a path prefix included. */
export const airflowUrl = (path: string): string => new URL(path, document.baseURI).href;

const part = (value: string): string => encodeURIComponent(value);

const detail = (body: unknown, status: number): string => {
  if (body !== null && typeof body === "object") {
    const fields = body as { message?: unknown; detail?: unknown };
    if (typeof fields.message === "string") return fields.message;
    if (typeof fields.detail === "string") return fields.detail;
    if (Array.isArray(fields.detail)) {
      return fields.detail.map((item: { msg?: string }) => item.msg ?? JSON.stringify(item)).join("; ");
    }
  }
  return `HTTP ${status}`;
};

const call = async <T>(path: string, init?: RequestInit): Promise<T> => {
  const response = await fetch(airflowUrl(path), {
    credentials: "same-origin",
    ...init,
    headers: { Accept: "application/json", ...(init?.body ? { "Content-Type": "application/json" } : {}) },
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const errors = (body as { errors?: FieldError[] } | null)?.errors ?? [];
    throw new Refused(response.status, detail(body, response.status), errors);
  }
  return body as T;
};

const dag = (dagId: string): string => `hops/api/dags/${part(dagId)}`;

export const getDag = (dagId: string, page: number): Promise<DagData | Reading> => call(`${dag(dagId)}?page=${page}`);

export const getSpans = (dagId: string, kind: string, offset: number, limit: number): Promise<SpanPage> =>
  call(`${dag(dagId)}/spans/${kind}?offset=${offset}&limit=${limit}`);

export const getWindowRuns = (dagId: string, offset: number, limit: number): Promise<WindowRunPage> =>
  call(`${dag(dagId)}/window-runs?offset=${offset}&limit=${limit}`);

export const getRun = (dagId: string, runId: string): Promise<RunData> => call(`${dag(dagId)}/runs/${part(runId)}`);

type TriggerBody = { dag_run_id: string } & Record<string, unknown>;

/** A manual run carrying the typed window: the plugin checks the window and writes the request (it makes no run);
 * the browser then sends that request to Airflow's REST API itself, as the user, who must be allowed to trigger. */
export const runWithWindow = async (dagId: string, window: Record<string, string>): Promise<string> => {
  const body = await call<TriggerBody>(`${dag(dagId)}/window-run`, { method: "POST", body: JSON.stringify(window) });
  const runs = `api/v2/dags/${part(dagId)}/dagRuns`;
  try {
    const made = await call<{ dag_run_id: string }>(runs, { method: "POST", body: JSON.stringify(body) });
    return made.dag_run_id;
  } catch (failure) {
    // Airflow can commit the run and then fail (a busy SQLite refusing its audit log's row): the run id is ours,
    // so asking for it tells a run made from none, rather than report a failure the user would repeat.
    if (failure instanceof Refused && failure.status >= 500) {
      const found = await call<{ dag_run_id: string }>(`${runs}/${part(body.dag_run_id)}`).catch(() => null);
      if (found !== null) return found.dag_run_id;
    }
    throw failure;
  }
};
