/**
 * The data hooks a remote may use: Refine's own, so the module request stays `@refinedev/core` and Module
 * Federation resolves it to the Desk's shared singleton (one data provider, one query cache).
 */
export { useCreate, useCustom, useDelete, useInvalidate, useList, useOne, useUpdate } from '@refinedev/core';
