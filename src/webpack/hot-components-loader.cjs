// Development builds of a remote: keeps component state across hot updates. Every top-level function
// declaration with a PascalCase name in a .tsx module (a function component) is replaced by a stable proxy
// that calls the newest implementation, so after an update React sees the same component type and keeps
// its state and hooks; only the rendered output changes. The Desk's React is a production build with no
// Fast Refresh runtime, which is why the swap happens here. The module accepts its own updates and tells the
// Desk to render again: the update stops here, so a `./views` module that loads this one with `lazy` keeps
// its lazy components (a new one would remount the view and lose its state). Production builds never use
// this loader.
const COMPONENT = /^(?:export\s+(?:default\s+)?)?function\s+([A-Z][A-Za-z0-9_]*)\s*[<(]/gm;

module.exports = function hotComponentsLoader(source) {
  const names = [...source.matchAll(COMPONENT)].map((m) => m[1]);
  if (names.length === 0) return source;
  const { service } = this.getOptions();
  const file = this.resourcePath.slice(this.rootContext.length);
  const prefix = JSON.stringify(`${service}:${file}:`);
  const swaps = names.map((name) => `  ${name} = __deskHot(${JSON.stringify(name)}, ${name});`).join('\n');
  return `${source}
if (import.meta.webpackHot) {
  const __deskRegistry = ((globalThis as any).__DESK_HOT__ ??= {});
  const __deskHot = (name: string, impl: any) => {
    const key = ${prefix} + name;
    const entry = (__deskRegistry[key] ??= {
      impl,
      proxy: Object.assign((props: any) => __deskRegistry[key].impl(props), { displayName: name }),
    });
    entry.impl = impl;
    return entry.proxy;
  };
${swaps}
  import.meta.webpackHot.dispose((data: any) => {
    data.deskUpdated = true;
  });
  import.meta.webpackHot.accept();
  if (import.meta.webpackHot.data?.deskUpdated) {
    setTimeout(() => {
      window.dispatchEvent(new CustomEvent('desk:remote-updated', { detail: { service: ${JSON.stringify(service)} } }));
    }, 0);
  }
}
`;
};
