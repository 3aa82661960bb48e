// What the runtime entries see once bundled: the case suites esbuild puts in a virtual module,
// and Deno's global where the entry runs on Deno.
declare module 'faceverify:portable-suites' {
  export const suites: Array<{ file: string; label: string; exports: Record<string, unknown> }>;
}

declare const Deno: { exit(code: number): never } | undefined;
