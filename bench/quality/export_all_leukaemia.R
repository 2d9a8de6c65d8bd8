# A public wide table that is not in the shared data, for checking that the
# wide-data defaults generalise (bench/quality/results/2026-12-07-wide-screen.md):
# the ALL leukaemia expression set (Chiaretti et al. 2004; Bioconductor's ALL
# package, Debian r-bioc-all), the 111 samples whose molecular class is
# BCR/ABL (37) or NEG (74), 12,625 probe sets, written as a CSV with the class
# in the first column "label".
#
# Usage: Rscript bench/quality/export_all_leukaemia.R OUT.csv
#   then: topkfs convert OUT.csv -o all.npz --target label
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript export_all_leukaemia.R OUT.csv")
if (!requireNamespace("ALL", quietly = TRUE)) {
  stop("the ALL data package is missing: apt-get install r-bioc-all")
}
suppressMessages(library(ALL))
data(ALL)
keep <- ALL$mol.biol %in% c("BCR/ABL", "NEG")
x <- t(Biobase::exprs(ALL)[, keep])
table <- data.frame(label = as.character(ALL$mol.biol[keep]), x, check.names = FALSE)
write.csv(table, args[1], row.names = FALSE, quote = FALSE)
cat(sprintf("%s: %d samples x %d genes\n", args[1], nrow(x), ncol(x)))
