/**
 * What the CLI prints when the emulator cannot start. A port already taken is the usual
 * case (another emulator still running): say which flag moves it.
 */
export function startFailureMessage(error: unknown, host: string, port: number): string {
  if ((error as { code?: unknown } | null)?.code === 'EADDRINUSE') {
    return [
      `faceverify-emulator: port ${port} on ${host} is already in use (another emulator still running?).`,
      `Stop what listens there, or start on another port: --port ${port + 1}, or --port 0 for any free one.`,
      'Then point your app at the FACEVERIFY_BASE_URL the banner prints.',
    ].join('\n');
  }
  return `faceverify-emulator: could not start: ${String(error)}`;
}
