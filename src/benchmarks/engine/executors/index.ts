import type { LoadPlan } from '../../config/plan';
import type { Executor } from '../executor';
import { closedModel } from './closed-model';
import { openModel } from './open-model';

/** Executors registered by the plan's model kind. */
export const EXECUTORS: Record<LoadPlan['model']['kind'], Executor> = {
  closed: closedModel,
  open: openModel,
};
