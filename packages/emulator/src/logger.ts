/**
 * Where the emulator reports what it does (sessions completed, webhooks sent or lost).
 * `console` fits, as do pino and winston loggers.
 */
export interface EmulatorLogger {
  info(message: string): void;
  warn(message: string): void;
}
