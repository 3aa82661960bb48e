export { createClient } from './create-client.js';
export type {
  Client,
  ClientOptions,
  CreatedSession,
  CreateSessionParams,
  RequestOptions,
  SessionSnapshot,
} from './types.js';
