/**
 * jsdom has no `CSS` global; browsers have `CSS.escape`, which the generic form uses to find the first
 * invalid field. This covers the DocType field names it escapes (identifiers), not the whole CSSOM spec.
 */
const scope = globalThis as { CSS?: { escape(value: string): string } };
scope.CSS ??= { escape: (value) => value.replace(/[^\w-]/g, (ch) => `\\${ch}`) };
