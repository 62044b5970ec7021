/**
 * Seed records of the sample apps, so the offline Desk opens on lists that have something in them. Values
 * come from a faker instance with a fixed seed and a fixed reference date: every start (and every test)
 * sees the same customers, leads, items and warehouses. Each record passes the DocType's own zod model
 * (`validateDocument`), so a seed cannot drift from the model it fills.
 */
import { base, en, Faker } from '@faker-js/faker';
import type { MemoryRecordStore } from '../../backend/data/memory-record-store';
import { validateDocument } from '../../backend/data/validate';
import type { DocTypeRegistry } from '../../backend/doctypes/registry';

/** The faker seed: change it and every seeded value changes. */
export const SEED = 20_240_601;

/** Seeded records are dated in the days before this instant (records created offline sort first). */
const REFERENCE_DATE = '2025-01-15T09:00:00.000Z';

/** Who the seeded records are credited to (`modified_by`): the mock backend's one user. */
const SEED_AUTHOR = 'Administrator';

const CUSTOMER_STATUSES = ['Active', 'Active', 'Prospect'] as const;
const LEAD_SOURCES = ['Website', 'Referral', 'Trade show', 'Cold call'] as const;

/** DocType name -> how many records to seed and how to make one. */
const GENERATORS: Record<string, { count: number; make(faker: Faker, i: number): Record<string, unknown> }> =
  {
    'crm.Customer': {
      count: 3,
      make: (faker, i) => {
        const company = faker.company.name();
        return {
          customer_name: company,
          email: faker.internet.email({ lastName: company.split(/\W+/)[0], provider: 'example.com' }),
          phone: faker.phone.number({ style: 'international' }),
          status: CUSTOMER_STATUSES[i % CUSTOMER_STATUSES.length],
        };
      },
    },
    'crm.Lead': {
      count: 2,
      make: (faker) => ({
        lead_name: faker.person.fullName(),
        source: faker.helpers.arrayElement(LEAD_SOURCES),
      }),
    },
    'stock.Item': {
      count: 3,
      make: (faker) => ({
        item_code: `ITM-${faker.string.alphanumeric({ length: 5, casing: 'upper' })}`,
        item_name: faker.commerce.productName(),
        quantity: faker.number.int({ min: 1, max: 500 }),
        price: Number(faker.commerce.price({ min: 2, max: 900 })),
      }),
    },
    // After the customers: each ticket links to one of them (CUST-00001, ...).
    'support.Ticket': {
      count: 2,
      make: (faker, i) => ({
        subject: `${faker.hacker.verb()} ${faker.hacker.noun()} fails`.replace(/^\w/, (c) => c.toUpperCase()),
        customer: `CUST-${String(i + 1).padStart(5, '0')}`,
        description: faker.lorem.sentences(2),
        status: i === 0 ? 'Open' : 'Replied',
        priority: i === 0 ? 'High' : 'Medium',
      }),
    },
    'stock.Warehouse': {
      count: 2,
      make: (faker) => ({
        warehouse_name: `${faker.location.city()} Warehouse`,
        location: `${faker.location.streetAddress()}, ${faker.location.city()}`,
      }),
    },
  };

/**
 * Inserts the seed records of every installed DocType that has a generator (others stay empty); returns
 * how many records each DocType received.
 */
export function seedRecords(store: MemoryRecordStore, doctypes: DocTypeRegistry): Record<string, number> {
  const faker = new Faker({ locale: [en, base], seed: SEED });
  const refDate = Date.parse(REFERENCE_DATE);
  const seeded: Record<string, number> = {};
  for (const [name, generator] of Object.entries(GENERATORS)) {
    const doctype = doctypes.get(name);
    if (!doctype) continue;
    for (let i = 0; i < generator.count; i++) {
      const values = validateDocument(doctype, generator.make(faker, i));
      // Oldest first, a few hours apart, so the default `modified desc` order shows the last one on top.
      const at = new Date(refDate - (generator.count - i) * 3_600_000 * 7);
      store.insertAt(doctype, values, at, SEED_AUTHOR);
    }
    seeded[name] = generator.count;
  }
  return seeded;
}
