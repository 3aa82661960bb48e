import { ConfigurationError } from '@faceverify/core';

/**
 * A setting of the relay that is missing or wrong: the message names the setting and the
 * fix, and never repeats the value (it may be a secret or hold one).
 */
export class RelayConfigError extends ConfigurationError {
  /** The setting to change, e.g. `FACEVERIFY_RELAY_TOKEN`. */
  readonly setting: string;

  constructor(setting: string, message: string) {
    super(message);
    this.name = 'RelayConfigError';
    this.setting = setting;
  }
}
