/**
 * The schema's migrations (`src/migrations/`, one file each, listed in order by its index), under
 * the name the package exports them by.
 */
export { illustrativeSnapshotId, loader, migrations } from "./migrations/index.ts"
export { fundingIndexSequence } from "./internal/rows/contracts.ts"
