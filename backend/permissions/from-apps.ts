import type { InstalledApp } from '../../src/contract';
import type { PermissionDeclarations } from './permission-service';

/**
 * The permissions the installed apps declare: each DocType's default rules (`permissions` of its app) and
 * each RPC method's roles.
 */
export function declarationsOf(
  apps: ReadonlyArray<Pick<InstalledApp, 'doctypes' | 'methods' | 'permissions'>>,
): PermissionDeclarations {
  return {
    doctypes: apps.flatMap((app) =>
      app.doctypes.map((d) => ({ name: d.name, permissions: app.permissions?.[d.name] ?? [] })),
    ),
    methods: apps.flatMap((app) =>
      Object.entries(app.methods).map(([name, method]) => ({ name, roles: method.roles })),
    ),
  };
}
