export { createClient } from './create-client.js';
export type {
  Client,
  ClientOptions,
  CreatedSession,
  CreateSessionParams,
  RequestOptions,
  SessionReadOptions,
  SessionSnapshot,
} from './types.js';
