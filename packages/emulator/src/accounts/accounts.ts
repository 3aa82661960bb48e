import type { AccountConfig } from './resolve-accounts.js';

/**
 * An account while the emulator runs: its callback URL and its signing secret can change (the
 * service's Settings change both), nothing else.
 */
export interface Account extends Readonly<Omit<AccountConfig, 'callbackUrl' | 'signingSecret'>> {
  callbackUrl: string | null;
  signingSecret: string;
}

/** The accounts an emulator serves, in the order they were given; there is at least one. */
export class Accounts {
  readonly list: readonly Account[];
  /** The first account: the one the single-account parts of the API stand for. */
  readonly first: Account;

  constructor(configs: readonly AccountConfig[]) {
    const [first, ...rest] = configs.map((config): Account => ({ ...config }));
    // resolveAccounts never gives none; this keeps `first` an account for the type checker.
    if (!first) throw new Error('an emulator serves at least one account');
    this.first = first;
    this.list = [first, ...rest];
  }

  find(id: string): Account | undefined {
    return this.list.find((account) => account.id === id);
  }

  /** @throws Error naming the accounts there are, when none has this id. */
  get(id: string): Account {
    const account = this.find(id);
    if (!account) {
      throw new Error(
        `The emulator has no account ${JSON.stringify(id)}; its accounts are ` +
          `${this.list.map((known) => JSON.stringify(known.id)).join(', ')}.`,
      );
    }
    return account;
  }
}
