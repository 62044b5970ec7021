/**
 * The gadgets app: one DocType, served by the platform (`m serve --app examples/foreign-remote`), whose UI
 * remote is built by a plain webpack configuration with `@module-federation/enhanced` (webpack.config.mjs),
 * not by the platform's `createRemoteConfig` (docs/mfe-teams.md#a-remote-from-your-own-bundler-config).
 */
import { defineApp, defineDocType, z } from '@framework-m/desk/app';

/** `gadgets.Gadget`: a named gadget. */
export const Gadget = defineDocType({
  name: 'gadgets.Gadget',
  label: 'Gadget',
  titleField: 'title',
  namePrefix: 'GDG',
  model: z.object({
    title: z.string().trim().min(1).max(140).meta({ label: 'Title', inList: true }),
  }),
});

export default defineApp({
  name: 'gadgets',
  label: 'Gadgets',
  doctypes: [Gadget],
  menus: [{ label: 'Gadgets', doctype: Gadget.name }],
  permissions: {},
});
