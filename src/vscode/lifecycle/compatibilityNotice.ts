import { notify } from '../notify';

/** Tells the user, once, that the connected claude CLI is outside the supported range (message from clientVersion.ts). */
export function showCompatibilityNotice(message: string, log: { show(): void }): void {
  void notify.warn(message, 'Show Log').then((choice) => choice && log.show());
}
