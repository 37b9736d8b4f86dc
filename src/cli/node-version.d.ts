/** Types of node-version.js (plain JavaScript, so that any Node.js parses it). */
export declare const NEEDED_MAJOR: number;
export declare function tooOldLine(version: string, neededMajor?: number): string | undefined;
export declare function requireNode(neededMajor?: number): void;
