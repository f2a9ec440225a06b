import type { StoreUpgrade, StoreUpgradeListener } from './spec.js';

/** Tells a listener that a store's schema is about to be migrated; a listener that throws never stops the open (it only reports). */
export function tellUpgrade(onUpgrade: StoreUpgradeListener | undefined, upgrade: StoreUpgrade): void {
  try {
    onUpgrade?.(upgrade);
  } catch {
    // reporting only
  }
}
