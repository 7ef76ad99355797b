package llmsim.cli;

/** Output formats every command offers. */
public enum Format {
  table, json, csv
}
