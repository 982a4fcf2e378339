// The bundle Airflow's UI (3.1 and later) loads for the plugin's react_apps: one file that sets
// globalThis.AirflowPlugin. React, its JSX runtime and the router are the host's own (the UI puts them on
// globalThis), so the tab shares Airflow's router and bundles none of them.
import { defineConfig } from "vite";

export default defineConfig({
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  build: {
    outDir: "../hops_timetable/ui/static",
    emptyOutDir: false,
    target: "es2020",
    lib: {
      entry: "src/main.tsx",
      name: "HopsworksTab",
      formats: ["iife"],
      fileName: () => "hopsworks-tab.js",
    },
    rollupOptions: {
      external: ["react", "react/jsx-runtime", "react-router-dom"],
      output: {
        globals: {
          react: "React",
          "react/jsx-runtime": "ReactJSXRuntime",
          "react-router-dom": "ReactRouterDOM",
        },
      },
    },
  },
});
