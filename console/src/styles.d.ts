// Stylesheets are imported for their side effect; Vite bundles them (docs/console.md).
declare module '*.css';
