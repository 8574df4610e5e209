/* graph_undef.h — forgets an executor's definitions of the graph body's names (graphlap.h), so
 * that the next executor in the same file can give its own. No include guard: included once per
 * change of executor. */
#undef GDEG
#undef GNB
#undef GDEG2
#undef GNB2
#undef GFOR
#undef GFOR2
#undef GAT
#undef GOUT
