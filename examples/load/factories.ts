/**
 * Factories used by custom-factory.yaml. A factory is any exported function; the harness imports the module
 * once (TypeScript is fine) and calls the export with a context object.
 */
import { faker } from '@faker-js/faker';

/** Context of an auth factory: the user's number and the target. */
interface AuthContext {
  user: number;
  targetUrl: string;
}

/** Context of a body factory: the user's number, the scenario label and the config's `seed`. */
interface BodyContext {
  user: number;
  scenario: string;
  seed: Record<string, unknown>;
}

/**
 * Auth factory: trades the API key from the environment for a bearer token of its own per user
 * (`POST /api/method/platform.auth.issue_token`) and returns the header to send.
 */
export async function tokenPerUser(ctx: AuthContext): Promise<Record<string, string>> {
  const res = await fetch(`${ctx.targetUrl}/api/method/platform.auth.issue_token`, {
    method: 'POST',
    headers: {
      authorization: `token ${process.env.LOAD_API_KEY}:${process.env.LOAD_API_SECRET}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ expires_in: 3600 }),
  });
  if (!res.ok) throw new Error(`issue_token answered ${res.status}`);
  const { message } = (await res.json()) as { message: { access_token: string } };
  return { Authorization: `Bearer ${message.access_token}` };
}

/** Body factory: a stock.Item whose code says which user created it. */
export function newItem(ctx: BodyContext): Record<string, unknown> {
  return {
    item_code: `U${ctx.user}-${faker.string.alphanumeric(8).toUpperCase()}`,
    item_name: faker.commerce.productName(),
    quantity: faker.number.int({ min: 1, max: 100 }),
    price: Number(faker.commerce.price()),
  };
}
