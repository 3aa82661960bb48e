/** The part of Bun's API that the portable Bun.serve cases use. */
export interface BunRuntime {
  serve(options: {
    hostname: string;
    port: number;
    fetch: (request: Request, server: unknown) => Response | Promise<Response>;
  }): { port: number; stop(force: boolean): void };
}

/** Bun's global when the cases run on Bun; `undefined` on every other runtime. */
export function bunRuntime(): BunRuntime | undefined {
  return (globalThis as { Bun?: BunRuntime }).Bun;
}
