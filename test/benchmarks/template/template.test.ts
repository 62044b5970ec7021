import { faker } from '@faker-js/faker/locale/en';
import { describe, expect, it } from 'vitest';
import { resolveFakerPath } from '../../../src/benchmarks/template/faker-path';
import { compileTemplate, type TemplateProblem } from '../../../src/benchmarks/template/template';

function compile(value: unknown, seed: Record<string, unknown> = {}) {
  const problems: TemplateProblem[] = [];
  const render = compileTemplate(value, faker, seed, problems);
  return { render, problems };
}

describe('resolveFakerPath', () => {
  it('resolves real generators of faker modules', () => {
    expect(typeof resolveFakerPath(faker, 'person.fullName')?.()).toBe('string');
    expect(resolveFakerPath(faker, 'internet.email')?.()).toMatch(/@/);
  });

  it('refuses anything that is not <module>.<generator>', () => {
    for (const path of [
      'constructor',
      'person.constructor',
      'person.__proto__',
      'person.toString',
      'person.hasOwnProperty',
      '__proto__.polluted',
      'person',
      'person.fullName.call',
      'person.nope',
      'definitions.person',
      'rawDefinitions.person',
    ]) {
      expect(resolveFakerPath(faker, path), path).toBeUndefined();
    }
  });
});

describe('compileTemplate', () => {
  it('renders faker generators on every call, mixed into text', () => {
    const { render, problems } = compile('Hello {{ faker.person.firstName }} <{{faker.internet.email}}>');
    expect(problems).toEqual([]);
    expect(render()).toMatch(/^Hello \S+ <\S+@\S+>$/);
  });

  it('keeps the rendered type of a whole-string template, and passes JSON arguments', () => {
    const { render } = compile({ qty: '{{ faker.number.int({"min": 5, "max": 5}) }}', flag: true, n: 3 });
    expect(render()).toEqual({ qty: 5, flag: true, n: 3 });
  });

  it('looks up seed values by dotted key and list index, keeping their type', () => {
    const seed = { tenant: 'acme', warehouses: ['WH-1', 'WH-2'], limits: { max: 10 } };
    const { render, problems } = compile(
      {
        path: '/t/{{ seed.tenant }}',
        wh: '{{ seed.warehouses.1 }}',
        all: '{{ seed.warehouses }}',
        max: '{{ seed.limits.max }}',
      },
      seed,
    );
    expect(problems).toEqual([]);
    expect(render()).toEqual({ path: '/t/acme', wh: 'WH-2', all: ['WH-1', 'WH-2'], max: 10 });
  });

  it('renders the same values after reseeding faker (the dry run is reproducible)', () => {
    const { render } = compile(['{{ faker.person.fullName }}', '{{ faker.string.uuid }}']);
    faker.seed(7);
    const first = render();
    faker.seed(7);
    expect(render()).toEqual(first);
  });

  it('reports unknown generators, unknown seed keys and non-template expressions with their path', () => {
    const { problems } = compile(
      {
        a: '{{ faker.person.nope }}',
        b: ['x', '{{ seed.missing }}'],
        c: 'x {{ process.exit }}',
        d: '{{ faker.number.int(oops) }}',
      },
      {},
    );
    expect(problems.map((p) => p.path)).toEqual([['a'], ['b', 1], ['c'], ['d']]);
    expect(problems[0]!.message).toContain('not a faker generator');
    expect(problems[1]!.message).toContain('seed has no key "missing"');
  });
});
