import type { Store, TrackedState } from '@faceverify/core';

// The option and outcome types of the Store methods, read off the `Store` interface itself,
// so this package follows core's definitions without needing each one exported by name.
export type InsertOptions = Parameters<Store['insert']>[0];
export type InsertOutcome = Awaited<ReturnType<Store['insert']>>;
export type GetOptions = Parameters<Store['get']>[0];
export type FindByUserOptions = Parameters<Store['findByUser']>[0];
export type RememberOptions = Parameters<Store['remember']>[0];
export type ForgetOptions = Parameters<Store['forget']>[0];
export type AttachResultOptions = Parameters<Store['attachResult']>[0];
export type LeaseOptions = Parameters<Store['lease']>[0];
export type LeaseDueOptions = Parameters<Store['leaseDue']>[0];
export type SettleOptions = Parameters<Store['settle']>[0];
export type CountsOptions = Parameters<Store['counts']>[0];

/** Whether a record in `state` is still worked on. */
export function isOpen(state: TrackedState): state is 'pending' | 'delivering' {
  return state === 'pending' || state === 'delivering';
}
