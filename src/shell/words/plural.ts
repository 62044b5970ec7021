/**
 * Counted nouns for people: "1 customer", "3 customers", by the language's plural rules (Intl.PluralRules),
 * never "1 customers".
 */

const rulesByLocale = new Map<string, Intl.PluralRules>();

function rulesFor(locale: string): Intl.PluralRules {
  let rules = rulesByLocale.get(locale);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    rulesByLocale.set(locale, rules);
  }
  return rules;
}

/** `count` followed by `one` or `other` as the plural rules of `locale` say (default English). */
export function plural(count: number, one: string, other: string, locale = 'en'): string {
  const formatted = new Intl.NumberFormat(locale).format(count);
  return `${formatted} ${rulesFor(locale).select(count) === 'one' ? one : other}`;
}

/**
 * The plural of a DocType label for headings and counts ("Customer" -> "Customers", "Company" ->
 * "Companies"); English rules only, enough for labels written in English.
 */
export function pluralLabel(label: string): string {
  if (/[^aeiou]y$/i.test(label)) return `${label.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(label)) return `${label}es`;
  return `${label}s`;
}

/** "3 customers" for a DocType label: lower-cased noun, plural chosen by the count. */
export function countOf(count: number, label: string, locale = 'en'): string {
  const noun = label.toLowerCase();
  return plural(count, noun, pluralLabel(noun), locale);
}
