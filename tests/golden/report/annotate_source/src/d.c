/* line 1 */
/* line 2 */
/* line 3 */
/* line 4 */
/* line 5 */
/* line 6 */
/* line 7 */
/* line 8 */
/* line 9 */
/* line 10 */
/* line 11 */
void D(int n) {
/* line 13 */
/* line 14 */
	for (int i = 0; i < n; ++i) sum += table[i];  /* the hot loop */
/* line 16 */
  helper(n);
/* line 18 */
/* line 19 */
  return;  [2J escape in a comment
}
/* line 22 */
/* line 23 */
/* line 24 */
/* line 25 */
/* line 26 */
/* line 27 */
/* line 28 */
/* line 29 */
/* line 30 */
