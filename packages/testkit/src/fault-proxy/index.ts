export { startFaultProxy, type FaultProxy } from './fault-proxy.js';
