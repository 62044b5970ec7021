// Development builds of a remote: makes the exposed `./views` module accept hot updates (its own and those
// bubbling up from its components) and tells the Desk to read the new views, so an edit shows without a
// page reload. Appended to the module's source; production builds never use this loader.
module.exports = function hotViewsLoader(source) {
  const { service } = this.getOptions();
  return `${source}
if (import.meta.webpackHot) {
  import.meta.webpackHot.dispose((data) => {
    data.deskUpdated = true;
  });
  import.meta.webpackHot.accept();
  if (import.meta.webpackHot.data && import.meta.webpackHot.data.deskUpdated) {
    setTimeout(() => {
      window.dispatchEvent(new CustomEvent('desk:remote-updated', { detail: { service: ${JSON.stringify(service)} } }));
    }, 0);
  }
}
`;
};
