/**
 * Whether `value` is an absolute http or https URL. Other schemes (`javascript:`, `data:`,
 * `file:`) are refused wherever the emulator sends a browser or a request.
 */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}
