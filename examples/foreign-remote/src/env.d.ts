/** A stylesheet imported as text (webpack's `asset/source`). */
declare module '*.css' {
  const css: string;
  export default css;
}
