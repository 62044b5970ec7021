import { useEffect, useState } from 'react';

/** `value`, updated only after it has stayed the same for `ms` milliseconds (a pause in typing). */
export function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return debounced;
}
