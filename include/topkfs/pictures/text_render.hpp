#pragma once
// Text on pictures with a built-in 5x7 bitmap font (printable ASCII), so that
// charts carry their titles, tick numbers and legends without a font library.
#include <string>
#include <string_view>

#include "topkfs/pictures/picture.hpp"

namespace topkfs {

// Every glyph is kGlyphWidth x kGlyphHeight cells at scale 1: capitals and
// digits fill rows 0..6 (row 6 is the baseline), rows 7..8 hold descenders
// (g, j, p, q, y, comma, underscore). Characters advance by kGlyphAdvance,
// which includes one blank column between characters.
inline constexpr int kGlyphWidth = 5;
inline constexpr int kGlyphHeight = 9;
inline constexpr int kGlyphAdvance = 6;

enum class TextAlign { Left, Center, Right };

struct TextStyle {
  Rgb color = kBlack;
  int scale = 1;  // each font cell becomes a scale x scale square
  // Where x is: the left edge, the centre or the right edge of the text.
  TextAlign align = TextAlign::Left;
};

// True when cell (column, row) of the glyph of `c` is inked; characters
// outside 32..126 are drawn as '?'.
bool glyph_cell(char c, int column, int row);

// Width in pixels of `text` drawn at `scale`: size() * kGlyphAdvance * scale
// (the last character's trailing blank column included).
int text_width(std::string_view text, int scale = 1);
// Height in pixels of one line at `scale`: kGlyphHeight * scale.
int text_height(int scale = 1);

// Draws `text` with the top of its glyph cells at y (horizontal position as
// style.align says), clipped to the image.
void draw_text(RgbImage& image, int x, int y, std::string_view text, const TextStyle& style = {});

// Draws `text` turned a quarter turn counter-clockwise, reading bottom to top
// (the usual y-axis label). y is the vertical position of the text as
// style.align says (Left: its bottom end, Center: its middle, Right: its top
// end); x is the left edge of the text_height(scale) wide column it fills.
void draw_text_vertical(RgbImage& image, int x, int y, std::string_view text,
                        const TextStyle& style = {});

// `text` if it fits in `max_width` pixels at `scale`, else its longest prefix
// that fits followed by "..", or "" when not even ".." fits.
std::string fit_text(std::string_view text, int max_width, int scale = 1);

}  // namespace topkfs
