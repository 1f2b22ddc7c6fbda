// The undici parts a baseline's requests need, required by path as the client requires them (sdk/client/client.ts):
// undici's index also loads fetch, WebSocket, caches and mocks, about 90 ms of CPU at every start with the compile
// cache warm against 25 ms for these, which the commands never pay and so no baseline may.
import { createRequire } from "node:module";
import type { Dispatcher, Pool as UndiciPool } from "undici";

const requireUndici = createRequire(import.meta.url);
export const Pool = requireUndici("undici/lib/dispatcher/pool.js") as typeof UndiciPool;
const dispatcherRequest = requireUndici("undici/lib/api/api-request.js") as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/** One request on `dispatcher` (what `dispatcher.request` is once undici's index has loaded). */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return dispatcherRequest.call(dispatcher, options);
}
