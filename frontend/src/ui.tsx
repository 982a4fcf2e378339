// Shared pieces: live data, the look (Airflow's own Chakra tokens, so the tab is light or dark as the UI is), tables.
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";

/** How often a shown tab asks again while runs may move; a hidden browser tab asks nothing. */
export const REFRESH_MS = 10_000;

export type Live<T> = { data: T | null; error: string | null; reload: () => void };

/** *load*'s answer, asked again whenever *key* changes and, with *poll*, every REFRESH_MS while the page is visible
 * (a part of the page whose key holds the whole page's time refreshes with it, and asks nothing on its own). */
// The last answer of each key: the host may mount the tab afresh (its lazy loader, then the loaded component), and a
// tab mounted again shows what it showed at once instead of "Loading" until its first answer.
const last = new Map<string, unknown>();

export const useLive = <T,>(load: () => Promise<T>, key: string, poll = true): Live<T> => {
  const [data, setData] = useState<T | null>(() => (last.get(key) as T | undefined) ?? null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;
  const reload = useCallback(() => {
    const ask = ++latest.current;
    loader.current().then(
      (value) => {
        last.set(key, value);
        if (ask === latest.current) {
          setData(value);
          setError(null);
        }
      },
      (failure: unknown) => {
        if (ask === latest.current) setError(failure instanceof Error ? failure.message : String(failure));
      },
    );
  }, [key]);
  useEffect(() => {
    reload();
    if (!poll) return undefined;
    const timer = window.setInterval(() => {
      if (!document.hidden) reload();
    }, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [key, poll, reload]);
  return { data, error, reload };
};

const token = (name: string, fallback: string): string => `var(--chakra-${name}, ${fallback})`;

// One stylesheet for both tabs, scoped under .hops-tab; every colour is a token of Airflow's theme.
const CSS = `
.hops-tab{color:${token("colors-fg", "inherit")};font-family:${token("fonts-body", "inherit")};font-size:14px;
  padding:4px 0 24px;max-width:100%}
.hops-tab h2{font-size:16px;font-weight:600;margin:20px 0 8px}
.hops-tab h3{font-size:14px;font-weight:600;margin:14px 0 6px}
.hops-tab ul{margin:0;padding-left:20px}
.hops-tab .note{color:${token("colors-fg-muted", "inherit")};font-size:13px;margin:4px 0}
.hops-tab .mono{font-family:${token("fonts-mono", "monospace")};white-space:nowrap;font-variant-numeric:tabular-nums}
.hops-tab .scroll{overflow-x:auto;max-width:100%}
.hops-tab table{border-collapse:collapse;margin:4px 0}
.hops-tab th,.hops-tab td{border-bottom:1px solid ${token("colors-border", "#ccc")};padding:4px 10px;text-align:left;
  vertical-align:top}
.hops-tab th{background:${token("colors-bg-muted", "transparent")};font-weight:600;white-space:nowrap}
.hops-tab th small{display:block;font-weight:400;color:${token("colors-fg-muted", "inherit")}}
.hops-tab tr.new td{background:${token("colors-bg-subtle", "transparent")}}
.hops-tab a{color:${token("colors-fg-info", "inherit")};text-decoration:underline}
.hops-tab .verdict{display:inline-block;padding:2px 8px;border-radius:4px;font-weight:600}
.hops-tab .ok{color:${token("colors-fg-success", "green")}}
.hops-tab .bad{color:${token("colors-fg-error", "red")}}
.hops-tab .pager{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:6px 0}
.hops-tab button{font:inherit;padding:4px 12px;border-radius:4px;cursor:pointer;
  border:1px solid ${token("colors-border", "#ccc")};background:${token("colors-bg-muted", "transparent")};
  color:inherit}
.hops-tab button.primary{background:${token("colors-brand-solid", "#2b5a8c")};
  color:${token("colors-brand-contrast", "#fff")};border-color:transparent}
.hops-tab button:disabled{opacity:.5;cursor:default}
.hops-tab input{font:inherit;padding:4px 8px;border-radius:4px;border:1px solid ${token("colors-border", "#ccc")};
  background:${token("colors-bg", "transparent")};color:inherit;width:24ch}
.hops-tab input[aria-invalid=true]{border-color:${token("colors-fg-error", "red")}}
.hops-tab form{display:grid;grid-template-columns:max-content max-content auto;gap:6px 10px;align-items:center}
.hops-tab .t-ran{color:${token("colors-fg-success", "green")}}
.hops-tab .t-failed,.hops-tab .t-missed{color:${token("colors-fg-error", "red")}}
.hops-tab .t-running{color:${token("colors-fg-info", "blue")}}
.hops-tab .t-dropped{color:${token("colors-fg-warning", "orange")}}
.hops-tab .t-due,.hops-tab .t-skipped{color:${token("colors-fg-muted", "gray")}}
.hops-tab .strip{display:flex;gap:1px;height:16px;margin:6px 0 2px}
.hops-tab .strip span{flex:1 1 0;min-width:1px;border-radius:1px}
.hops-tab .f-ran{background:${token("colors-success-solid", "green")}}
.hops-tab .f-running{background:${token("colors-running-solid", "teal")}}
.hops-tab .f-failed,.hops-tab .f-missed{background:${token("colors-failed-solid", "red")}}
.hops-tab .f-dropped{background:${token("colors-fg-warning", "orange")}}
.hops-tab .f-due,.hops-tab .f-skipped{background:${token("colors-border-emphasized", "gray")}}
`;

export const Tab = ({ children, id }: { readonly children: ReactNode; readonly id: string }) => (
  <div className="hops-tab" id={id}>
    <style>{CSS}</style>
    {children}
  </div>
);

/** A column head and what it holds, so that no time is shown without saying which time it is. */
export type Head = readonly [string, string?];

export const Table = ({ id, head, children }: { readonly id: string; readonly head: Head[]; readonly children: ReactNode }) => (
  <div className="scroll">
    <table id={id}>
      <thead>
        <tr>
          {head.map(([name, hint]) => (
            <th key={name}>
              {name}
              {hint === undefined ? null : <small>{hint}</small>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
);

export const Mono = ({ value, id }: { readonly value: ReactNode; readonly id?: string }) => (
  <td className="mono" id={id}>
    {value}
  </td>
);

/** "first, previous, page n of m, next, last" for offset paging; renders nothing when one page holds everything. */
export const Pager = ({
  id,
  offset,
  size,
  total,
  move,
  unit,
}: {
  readonly id: string;
  readonly offset: number;
  readonly size: number;
  readonly total: number;
  readonly move: (offset: number) => void;
  readonly unit: string;
}) => {
  if (total <= size) return null;
  const page = Math.floor(offset / size);
  const pages = Math.ceil(total / size);
  return (
    <div className="pager" id={id}>
      <button type="button" disabled={page === 0} onClick={() => move(0)}>
        newest
      </button>
      <button type="button" disabled={page === 0} onClick={() => move((page - 1) * size)}>
        newer
      </button>
      <span>
        page {(page + 1).toLocaleString("en")} of {pages.toLocaleString("en")} ({total.toLocaleString("en")} {unit})
      </span>
      <button type="button" disabled={page + 1 >= pages} onClick={() => move((page + 1) * size)}>
        older
      </button>
      <button type="button" disabled={page + 1 >= pages} onClick={() => move((pages - 1) * size)}>
        oldest
      </button>
    </div>
  );
};
