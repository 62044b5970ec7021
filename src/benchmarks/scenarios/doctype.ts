import { faker } from '@faker-js/faker/locale/en';
import type { DoctypeScenarioPlan } from '../config/plan';
import { jsonOf } from '../engine/http-client';
import { harnessError } from '../errors';
import { createPayload, updatePayload } from '../target/payload';
import { joinUrl, type ScenarioFactory } from './runner';

/** Records asked for by a list read. */
const PAGE_LENGTH = 20;

type Op = 'read' | 'create' | 'update' | 'delete';

/**
 * `type: doctype` (docs/load-testing.md#scenarios): operations drawn by the `mix` ratios against the owner's
 * data API (docs/http-api.md#doctype-data-api-and-rpc). Creates are generated from the DocType's metadata
 * plus `payload_overrides`; the ids they return feed the pool that reads, updates and deletes use. A read is
 * a get of a known id half of the time and a list (with `filters`) otherwise, or always a list while the pool
 * is empty; an update or delete with an empty pool creates instead, so any mix seeds itself. An id is out
 * of the pool while a request on it runs, and leaves it for good when deleted or answered 404.
 */
export const doctypeScenario: ScenarioFactory<DoctypeScenarioPlan> = (plan, rt) => {
  const target = rt.target.doctypes[plan.doctype];
  if (!target) throw harnessError('target_mismatch', `the target does not know ${plan.doctype}`);
  const base = joinUrl(target.apiUrl, `/resource/${plan.doctype}`);
  const ids: string[] = [];
  const { read, create, update } = plan.mix;
  const pick = (): Op => {
    const r = Math.random();
    if (r < read) return 'read';
    if (r < read + create) return 'create';
    if (r < read + create + update) return 'update';
    return 'delete';
  };
  const overrides = () => plan.overrides?.() as Record<string, unknown> | undefined;
  const take = (): string => {
    const i = Math.floor(Math.random() * ids.length);
    const id = ids[i]!;
    ids[i] = ids[ids.length - 1]!;
    ids.pop();
    return id;
  };
  const common = { service: target.owner, schema: target.schema };
  return {
    plan,
    async iterate(user) {
      let op = pick();
      if ((op === 'update' || op === 'delete') && ids.length === 0) op = 'create';
      if (op === 'create') {
        const json = createPayload(target.schema, faker, overrides());
        const res = await user.send(plan.auth, { ...common, method: 'POST', url: base, json });
        const name = (jsonOf(res) as { data?: { name?: unknown } } | undefined)?.data?.name;
        if (res.status < 300 && typeof name === 'string') ids.push(name);
        return res;
      }
      if (op === 'read' && (ids.length === 0 || Math.random() < 0.5)) {
        const q = new URLSearchParams({ limit_page_length: String(PAGE_LENGTH) });
        if (plan.filters) q.set('filters', JSON.stringify(plan.filters()));
        return user.send(plan.auth, { ...common, method: 'GET', url: `${base}?${q}` });
      }
      // The record is taken out of the pool while its request runs, so no other user updates or deletes
      // it meanwhile (which would turn into a 404 that is the harness's doing, not the target's).
      const id = take();
      const url = `${base}/${encodeURIComponent(id)}`;
      if (op === 'delete') return user.send(plan.auth, { ...common, method: 'DELETE', url });
      const res =
        op === 'update'
          ? await user.send(plan.auth, {
              ...common,
              method: 'PUT',
              url,
              json: updatePayload(target.schema, faker, overrides()),
            })
          : await user.send(plan.auth, { ...common, method: 'GET', url });
      if (res.status !== 404) ids.push(id);
      return res;
    },
  };
};
