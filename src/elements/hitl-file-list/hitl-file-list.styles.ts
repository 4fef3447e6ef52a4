/** The same look as `<hitl-file>`. */
export { styles } from '../hitl-file/hitl-file.styles.js';
