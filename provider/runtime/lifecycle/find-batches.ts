// Finds by id gathered into `?ids=` lists: a refresh reads many resources of a family at once, and one list
// answers up to 100 of them in one request.
import { AudienceApiError, MAX_IDS_PER_REQUEST } from "pulumi-audience/sdk/client";
import type { FamilyDef } from "pulumi-audience/sdk/contract";
import type { Props } from "./shape.ts";

/** Lists of one family in flight at once; finds asked meanwhile wait for a slot and go together. Two keep the
 * service as busy as the finds alone would while the host asks a few reads at a time (Pulumi's parallelism). */
export const LISTS_IN_FLIGHT = 2;

type Find = (family: FamilyDef, id: string) => Promise<Props | undefined>;

interface Waiting {
  id: string;
  resolve(doc: Props | undefined): void;
  reject(error: unknown): void;
}

interface Queue {
  inFlight: number;
  scheduled: boolean;
  waiting: Waiting[];
}

/**
 * `find` answered from lists made by `listIds` (at most 100 ids each). A find asked in the same turn of the event
 * loop as others, or while LISTS_IN_FLIGHT lists of its family are under way, shares their next list. An id the
 * list leaves out is asked alone by `findOne`: lists omit archived resources, which a read still finds. A list the
 * service refuses as a bad request (an id that is no uuid, say) is not the others' failure: each is asked alone.
 */
export function findInBatches(listIds: (family: FamilyDef, ids: string[]) => Promise<Props[]>, findOne: Find): Find {
  const queues = new Map<FamilyDef, Queue>();

  const send = (family: FamilyDef, queue: Queue) => {
    const batch = queue.waiting.splice(0, MAX_IDS_PER_REQUEST);
    queue.inFlight++;
    const alone = (w: Waiting) => void findOne(family, w.id).then(w.resolve, w.reject);
    listIds(family, [...new Set(batch.map((w) => w.id))]).then(
      (docs) => {
        const byId = new Map(docs.map((doc) => [String(doc.id), doc]));
        for (const w of batch) {
          const doc = byId.get(w.id);
          if (doc === undefined) alone(w);
          else w.resolve(doc);
        }
      },
      (error: unknown) => {
        if (error instanceof AudienceApiError && error.status === 400) batch.forEach(alone);
        else for (const w of batch) w.reject(error);
      },
    ).finally(() => {
      queue.inFlight--;
      flush(family, queue);
    });
  };

  const flush = (family: FamilyDef, queue: Queue) => {
    while (queue.waiting.length > 0 && queue.inFlight < LISTS_IN_FLIGHT) send(family, queue);
  };

  return (family, id) => new Promise((resolve, reject) => {
    let queue = queues.get(family);
    if (!queue) queues.set(family, (queue = { inFlight: 0, scheduled: false, waiting: [] }));
    queue.waiting.push({ id, resolve, reject });
    if (queue.scheduled) return;
    queue.scheduled = true;
    // The finds of this turn go together.
    setImmediate(() => {
      queue.scheduled = false;
      flush(family, queue);
    });
  });
}
