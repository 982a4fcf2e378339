// The plugin's React app: Airflow's UI loads this file for the "Hopsworks" tab of a DAG's page and of a run's page
// (the plugin's react_apps) and renders the component it leaves on globalThis with the page's ids.
import { DagTab } from "./DagTab";
import { RunTab } from "./RunTab";

type Props = { dagId?: string; runId?: string };

const HopsworksTab = ({ dagId, runId }: Props) => {
  if (dagId === undefined) return <p>The Hopsworks tab belongs on a DAG's page or a run's page.</p>;
  // Keyed by the ids: moving to another DAG or run starts afresh (its page, its form).
  return runId === undefined ? <DagTab key={dagId} dagId={dagId} /> : <RunTab key={`${dagId}/${runId}`} dagId={dagId} runId={runId} />;
};

// Both tabs are named "Hopsworks": the UI keeps a loaded component under its name, so the one component serves both.
const registry = globalThis as unknown as Record<string, unknown>;
registry.AirflowPlugin = HopsworksTab;
registry.Hopsworks = HopsworksTab;
