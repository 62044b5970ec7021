import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { type Handler, type Received, type RecordingServer, startRecordingServer } from './recording-server';

/** Options of the fake platform. */
export interface FakePlatformOptions {
  mode?: 'disabled' | 'selective' | 'metadata' | 'strict';
  /** Answer 401 to data and RPC requests without the session cookie, API key or bearer token. */
  requireAuth?: boolean;
}

/**
 * A platform-shaped node:http server (the contracts of docs/http-api.md) that records what the harness sends.
 */
export interface FakePlatform extends RecordingServer {
  privateKey: KeyObject;
  /** Records created through the data API, by name. */
  records: Map<string, Record<string, unknown>>;
  /** Invalidates every session (the next data request answers 401). */
  expireSessions(): void;
  /** Replaces the encryption key: JWEs made for the old kid answer 400 `unknown_key`. */
  rotateKey(): void;
}

const CUSTOMER = {
  name: 'crm.Customer',
  app: 'crm',
  label: 'Customer',
  titleField: 'customer_name',
  fields: [
    { name: 'customer_name', type: 'string', label: 'Customer Name', required: true },
    { name: 'email', type: 'email', label: 'Email', required: false, pii: true },
    { name: 'phone', type: 'phone', label: 'Phone', required: false, pii: true },
    { name: 'status', type: 'select', label: 'Status', required: false, options: ['Active', 'Inactive'] },
  ],
};
const LEAD = {
  name: 'crm.Lead',
  app: 'crm',
  label: 'Lead',
  titleField: 'lead_name',
  fields: [{ name: 'lead_name', type: 'string', label: 'Lead Name', required: true }],
};

/**
 * Starts a fake platform: security config and JWKS (a real RSA-2048 key), discovery query, `crm` metadata,
 * `/api/resource/*` CRUD, `/api/method/*` RPC and session login (`usr`/`pwd` -> cookie + `csrf_token`).
 */
export async function startFakePlatform(o: FakePlatformOptions = {}): Promise<FakePlatform> {
  let keyNumber = 0;
  const newKey = () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = `k${++keyNumber}`;
    return {
      kid,
      privateKey,
      jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'enc', alg: 'RSA-OAEP-256' },
    };
  };
  let key = newKey();
  const records = new Map<string, Record<string, unknown>>();
  let sessionEpoch = 1;
  let seq = 0;
  let base = '';
  const authed = (r: Received) =>
    (r.headers.cookie ?? '').includes(`sid=s${sessionEpoch}`) ||
    r.headers.authorization !== undefined ||
    r.headers['x-api-key'] !== undefined;
  const handler: Handler = (r) => {
    if (r.path === '/api/v1/security/config') {
      return o.mode
        ? {
            json: {
              mode: o.mode,
              jwks_uri: '/api/v1/security/jwks',
              routes: ['/api/method/login'],
              kid: key.kid,
            },
          }
        : { status: 404 };
    }
    if (r.path === '/api/v1/security/jwks') return { json: { keys: [key.jwk] } };
    if (r.headers['content-type'] === 'application/jose' && decodeProtectedHeader(r.body).kid !== key.kid) {
      return { status: 400, json: { error: { code: 'unknown_key', message: 'unknown key' } } };
    }
    if (r.path === '/api/gateway/discovery/query') {
      const q = JSON.parse(r.body) as { resources: string[] };
      const manifest = {
        service: 'crm',
        rev: 1,
        url: null,
        apiUrl: `${base}/api`,
        metaUrl: `${base}/api/meta/crm`,
        doctypes: ['crm.Customer', 'crm.Lead'],
      };
      return {
        json: {
          resources: Object.fromEntries(q.resources.map((d) => [d, d.startsWith('crm.') ? 'crm' : null])),
          services: { crm: manifest },
        },
      };
    }
    if (r.path === '/api/meta/crm')
      return { json: { service: 'crm', doctypes: [CUSTOMER, LEAD], menus: [] } };
    if (r.path === '/api/method/login') {
      const body =
        r.headers['content-type'] === 'application/json'
          ? (JSON.parse(r.body) as { usr?: string; pwd?: string })
          : {};
      if (
        r.headers['content-type'] === 'application/json' &&
        (body.usr !== 'Administrator' || body.pwd !== 'secret')
      ) {
        return { status: 401, json: { error: { code: 'invalid_credentials', message: 'no' } } };
      }
      return {
        json: { message: 'Logged In', csrf_token: `csrf-${sessionEpoch}` },
        headers: { 'set-cookie': [`sid=s${sessionEpoch}; Path=/; HttpOnly`] },
      };
    }
    if (r.path.startsWith('/api/')) {
      if (o.requireAuth && !authed(r))
        return { status: 401, json: { error: { code: 'unauthorized', message: 'no' } } };
    }
    const res = /^\/api\/resource\/([^/]+)(?:\/([^/]+))?$/.exec(r.path);
    if (res) {
      const id = res[2] ? decodeURIComponent(res[2]) : undefined;
      if (r.method === 'POST') {
        const name = `REC-${++seq}`;
        const data =
          r.headers['content-type'] === 'application/json' ? JSON.parse(r.body) : { encrypted: true };
        records.set(name, { ...data, name });
        return { json: { data: { ...data, name } } };
      }
      if (r.method === 'GET' && !id)
        return { json: { data: [...records.values()].slice(0, 20), total: records.size } };
      if (!id || !records.has(id))
        return { status: 404, json: { error: { code: 'not_found', message: 'no' } } };
      if (r.method === 'DELETE') {
        records.delete(id);
        return { json: { data: { name: id } } };
      }
      return { json: { data: records.get(id) } };
    }
    if (r.path.startsWith('/api/method/')) return { json: { message: 42 } };
    return undefined;
  };
  const server = await startRecordingServer(handler);
  base = server.url;
  return {
    ...server,
    get privateKey() {
      return key.privateKey;
    },
    rotateKey: () => {
      key = newKey();
    },
    records,
    expireSessions: () => {
      sessionEpoch++;
    },
  };
}
