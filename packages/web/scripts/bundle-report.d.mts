// Types for the parts of bundle-report.mjs its test uses.
export interface ScreenRoutes {
  paths: string[];
  namespaces: string[];
  signedIn: boolean;
}
export interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
export interface RouteRow {
  feature: string;
  paths: string[];
  signedIn: boolean;
  files: number;
  raw: number;
  gzip: number;
  screenGzip: number;
}
export interface BundleReport {
  rows: RouteRow[];
  entry: { files: number; raw: number; gzip: number };
  onDemand: { key: string; gzip: number }[];
}
export const LOGIN_BUDGET_BYTES: number;
export const SIGNED_IN_SHELL: string[];
export function routeScreens(routerSource: string): Map<string, ScreenRoutes>;
export function staticClosure(manifest: Record<string, ManifestChunk>, key: string, into?: Set<string>): Set<string>;
export function bundleReport(
  manifest: Record<string, ManifestChunk>,
  screens: Map<string, ScreenRoutes>,
  size: (file: string) => [raw: number, gzip: number],
  lang?: string,
): BundleReport;
export function formatReport(report: BundleReport): string;
