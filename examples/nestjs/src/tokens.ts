/**
 * Injection tokens. Constructors name them with `@Inject()`, so injection works without
 * decorator metadata (which esbuild-based test runners and bundlers do not emit).
 */
export const RECEIVER = Symbol('faceverify Receiver');
export const PUBLIC_ADDRESS = Symbol('public address');

/** Where browsers reach the app; known once the server listens. */
export interface PublicAddress {
  url: string;
}
