/** `new Date().toISOString()`, made once per millisecond (the loop asks for it several times per step). */
let lastMs = -1;
let lastIso = '';

export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
