import type { Renderer, TemplateScope } from '../template/template';
import type { ConfigPath } from './issues';

/**
 * Compiles a value tree of templates, reporting each problem at its YAML position. Made by `buildPlan`
 * over the config's seed and handed to `buildFlowSteps`, which compiles the steps of a flow with it.
 */
export type CompileAt = (value: unknown, path: ConfigPath, scope?: TemplateScope) => Renderer;
