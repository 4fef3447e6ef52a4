/**
 * The whole table of operations, app side and knowledge side, for the parts that serve or check
 * all of it (the embedded service, the tests). Not re-exported by `index.ts`: a browser bundle of
 * the app side must not hold the knowledge side's paths.
 */
import { KNOWLEDGE_OPERATIONS } from './knowledge-operations.js';
import { APP_OPERATIONS, type Operation } from './operations.js';

export const OPERATIONS = { ...APP_OPERATIONS, ...KNOWLEDGE_OPERATIONS };

export type OperationId = keyof typeof OPERATIONS;

/** Every operation with its id and side, app side first, each in its table's order. */
export function operationList(): (Operation & { id: OperationId; side: 'app' | 'knowledge' })[] {
  const side = (id: string) => (id in APP_OPERATIONS ? 'app' : 'knowledge');
  return (Object.keys(OPERATIONS) as OperationId[]).map((id) => ({ ...(OPERATIONS[id] as Operation), id, side: side(id) }));
}
