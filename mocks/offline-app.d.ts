/** The team's app module the offline shell of `m app dev --offline` bundles (webpack aliases it). */
declare module 'desk-offline-app' {
  const app: import('../src/contract').InstalledApp;
  export default app;
}
