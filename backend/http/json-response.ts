/** Headers of a JSON answer that must not be cached (shared: nothing changes them). */
const NO_STORE_JSON: ResponseInit = {
  status: 200,
  headers: { 'cache-control': 'no-store', 'content-type': 'application/json' },
};

/**
 * `200` with `value` as JSON and `Cache-Control: no-store`, as a Response with a string body and a plain
 * header object, which @hono/node-server writes as it is (`c.header` and `c.json` build a Headers object
 * that it then reads back). For a handler whose request nothing before it gave a header with `c.header`.
 */
export function noStoreJson(value: unknown): Response {
  return new Response(JSON.stringify(value), NO_STORE_JSON);
}
