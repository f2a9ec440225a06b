import { LociError } from '../errors/index.js';
import type { Store } from './spec.js';

/**
 * Whether `store` is still the store at its location: false once its file was deleted or
 * replaced (STORE_GONE; a server then opens the new one), when the caches saved beside it (the
 * segment, the vector graph) would be written over the new store's. `readState` checks the
 * file afresh. Any other error is not this question's: true, and the save goes on as before.
 */
export async function storeStillHere(store: Pick<Store, 'readState'>): Promise<boolean> {
  try {
    await store.readState('store-instance');
    return true;
  } catch (error) {
    return !(error instanceof LociError && error.code === 'STORE_GONE');
  }
}
