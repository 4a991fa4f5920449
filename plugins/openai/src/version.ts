/** This package's version (kept in step with package.json). */
export const VERSION = '0.1.0';
