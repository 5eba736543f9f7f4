export { agUiRun, type AgUiRunOptions } from './ag-ui-run';
