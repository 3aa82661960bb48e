import type { FaultSchedule, FaultSettings, ServerErrorStatus } from '../faults/fault-settings.js';
import { SERVER_ERROR_STATUSES } from '../faults/fault-settings.js';
import type { EmulatorOptions } from '../options.js';
import { accountsFrom } from './account-flag.js';
import { CliUsageError } from './cli-usage-error.js';
import { parseDuration } from './duration.js';
import { parseFaultTrigger } from './fault-trigger.js';
import { DEFAULT_CLI_PORT } from './flags.js';
import type { FlagValues } from './parse-args.js';

/** What the command line asks for. */
export interface CliRequest {
  help: boolean;
  version: boolean;
  quiet: boolean;
  options: EmulatorOptions;
}

function wholeNumber(text: string, flag: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw new CliUsageError(`${flag} must be a whole number from ${min} to ${max}, not "${text}".`);
  }
  return value;
}

function faultsFrom(first: (name: string) => string | undefined): FaultSettings {
  const faults: FaultSettings = {};
  const trigger = (name: string): FaultSchedule | undefined => {
    const value = first(name);
    return value === undefined ? undefined : parseFaultTrigger(value, `--${name}`);
  };
  const requires = (detail: string, fault: string) => {
    if (first(detail) !== undefined && first(fault) === undefined) {
      throw new CliUsageError(`--${detail} needs --${fault}.`);
    }
  };

  const drop = trigger('drop-webhooks');
  if (drop) faults.dropWebhooks = drop;
  const duplicate = trigger('duplicate-webhooks');
  if (duplicate) faults.duplicateWebhooks = duplicate;
  const corrupt = trigger('corrupt-webhooks');
  if (corrupt) faults.corruptWebhooks = corrupt;

  requires('delay-webhooks', 'delay-webhooks-ms');
  const delayMs = first('delay-webhooks-ms');
  if (delayMs !== undefined) {
    faults.delayWebhooks = {
      ...(trigger('delay-webhooks') ?? { probability: 1 }),
      ms: wholeNumber(delayMs, '--delay-webhooks-ms', 0, 86_400_000),
    };
  }

  requires('poll-5xx-status', 'poll-5xx');
  const serverError = trigger('poll-5xx');
  if (serverError) {
    const status = first('poll-5xx-status');
    faults.poll5xx =
      status === undefined ? serverError : { ...serverError, status: serverErrorStatus(status) };
  }

  requires('poll-429-retry-after-ms', 'poll-429');
  const storm = trigger('poll-429');
  if (storm) {
    const retryAfter = first('poll-429-retry-after-ms');
    faults.poll429 =
      retryAfter === undefined
        ? storm
        : {
            ...storm,
            retryAfterMs: wholeNumber(retryAfter, '--poll-429-retry-after-ms', 0, 3_600_000),
          };
  }
  return faults;
}

function serverErrorStatus(text: string): ServerErrorStatus {
  const status = SERVER_ERROR_STATUSES.find((candidate) => String(candidate) === text.trim());
  if (status === undefined) {
    throw new CliUsageError(
      `--poll-5xx-status must be one of ${SERVER_ERROR_STATUSES.join(', ')}.`,
    );
  }
  return status;
}

/** Turns parsed flags into emulator options. @throws CliUsageError for a malformed value. */
export function cliRequest(values: FlagValues): CliRequest {
  const first = (name: string) => values.get(name)?.[0];
  const duration = (name: string) => {
    const value = first(name);
    return value === undefined ? undefined : parseDuration(value, `--${name}`);
  };
  const count = (name: string) => {
    const value = first(name);
    return value === undefined ? undefined : wholeNumber(value, `--${name}`, 1, 1_000_000);
  };
  const port = first('port');
  return {
    help: values.has('help'),
    version: values.has('version'),
    quiet: values.has('quiet'),
    options: {
      port: port === undefined ? DEFAULT_CLI_PORT : wholeNumber(port, '--port', 0, 65_535),
      host: first('host'),
      publicUrl: first('public-url'),
      callbackUrl: first('callback-url'),
      controlToken: first('control-token'),
      allowedHosts: values.get('allowed-host'),
      apiKeys: values.get('api-key'),
      signingSecret: first('signing-secret'),
      accounts: accountsFrom(values),
      sessionTtlMs: duration('session-ttl'),
      imageUrlTtlMs: duration('image-url-ttl'),
      webhookTimeoutMs: duration('webhook-timeout'),
      rateLimits: {
        verify: { limit: count('verify-limit'), windowMs: duration('verify-window') },
        complete: { limit: count('complete-limit'), windowMs: duration('complete-window') },
      },
      faults: faultsFrom(first),
      seed: first('seed'),
    },
  };
}
