export * from './constants.js';
export * from './envelope.js';
export * from './quota.js';
export * from './messages.js';
export * from './validation.js';
