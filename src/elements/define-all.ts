/** Registers every element of the package (the script-tag bundle's entry). */
import './human-input-form/define.js';
