/* dist_model.c */
